import { nameForms } from '../src/name-matching/normalise.js';
console.log(JSON.stringify(nameForms('Thomas Sá')), JSON.stringify(nameForms('TOM', {person:true})), JSON.stringify(nameForms('彬 麦')));
